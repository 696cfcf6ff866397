import numpy as np
import pandas as pd

from ltrbv.tables import performance_markdown, performance_table


def _per_query():
    rows = []
    rng = np.random.default_rng(1)
    truth = {}
    for learner in ("a", "b"):
        for fold in ("Fold1", "Fold2"):
            for seed in (1, 2):
                values = rng.random(5)
                truth[(learner, fold, seed)] = values.mean()
                for q, v in enumerate(values):
                    rows.append(dict(learner=learner, fold=fold, seed=seed, qid=str(q), n_docs=3,
                                     convention="letor4", metric="ndcg@10", value=v))
    return pd.DataFrame(rows), truth


def test_fold_rows_average_seeds_and_mean_rows_average_folds():
    per_query, truth = _per_query()
    table = performance_table(per_query, "demo")
    row = table[(table.learner == "a") & (table.fold == "Fold2")].iloc[0]
    expected = np.mean([truth[("a", "Fold2", 1)], truth[("a", "Fold2", 2)]])
    assert np.isclose(row.value, expected) and row.n_seeds == 2 and row.n_queries == 5
    assert np.isclose(row["std"], np.std([truth[("a", "Fold2", 1)], truth[("a", "Fold2", 2)]], ddof=1))
    mean = table[(table.learner == "a") & (table.fold == "mean")].iloc[0]
    fold_values = [np.mean([truth[("a", f, 1)], truth[("a", f, 2)]]) for f in ("Fold1", "Fold2")]
    assert np.isclose(mean.value, np.mean(fold_values)) and mean.std_over == "folds"
    assert len(table) == 2 * 2 + 2
    md = performance_markdown(table)
    assert "| learner | ndcg@10 |" in md and f"{mean.value:.4f}" in md


def test_excluded_queries_are_skipped():
    per_query, _ = _per_query()
    per_query.loc[0, "value"] = np.nan
    table = performance_table(per_query, "demo")
    assert table["value"].notna().all()


def test_markdown_says_which_learners_gave_identical_seeds():
    import pandas as pd

    from ltrbv.tables import performance_markdown, performance_table

    rows = [dict(learner=learner, fold=fold, seed=seed, convention="letor4", metric="map", qid=str(q),
                 value=0.5 + 0.1 * q + (0.0 if learner == "lambdamart" else 0.01 * seed))
            for learner in ("lambdamart", "rf") for fold in ("Fold1", "Fold2") for seed in (1, 2) for q in range(3)]
    text = performance_markdown(performance_table(pd.DataFrame(rows), "d"))
    note = [line for line in text.splitlines() if line.startswith("Seeds that gave identical results")]
    assert len(note) == 1 and "lambdamart (2 seeds)" in note[0] and "rf" not in note[0]
