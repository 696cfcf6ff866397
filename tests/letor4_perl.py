"""A Python transcription of the LETOR 4.0 evaluation script Eval-Score-4.0.pl (an oracle for tests)."""

from __future__ import annotations

import math

# -- Python transcription of Eval-Score-4.0.pl (Jun Xu & Tie-Yan Liu, LETOR 4.0) -------------
# Written as the Perl is: arrays filled position by position, 0-based $iPos.

# %hsNdcgRelScore: the LETOR 4.0 script lists labels 0, 1, 2 (gains 0, 1, 3); labels 3 and 4
# (gains 7, 15) come from the MSLR version of the script.
HS_NDCG_REL_SCORE = {0: 0, 1: 1, 2: 3, 3: 7, 4: 15}
# %hsPrecisionRel: label >= 1 in LETOR 4.0, label >= 2 in the MSLR script.
HS_PRECISION_REL_LETOR4 = {0: 0, 1: 1, 2: 1, 3: 1, 4: 1}
HS_PRECISION_REL_MSLR = {0: 0, 1: 0, 2: 1, 3: 1, 4: 1}
I_MAX_POSITION = 10


def perl_dcg(top_n, rates):
    dcg = [None] * top_n
    dcg[0] = HS_NDCG_REL_SCORE[rates[0]]
    for i_pos in range(1, top_n):
        r = rates[i_pos] if i_pos < len(rates) else 0  # "the hole" is irrelevant
        if i_pos < 2:
            dcg[i_pos] = dcg[i_pos - 1] + HS_NDCG_REL_SCORE[r]
        else:
            dcg[i_pos] = dcg[i_pos - 1] + HS_NDCG_REL_SCORE[r] * math.log(2.0) / math.log(i_pos + 1.0)
    return dcg


def perl_ndcg(top_n, rates):
    dcg = perl_dcg(top_n, rates)
    st_rates = sorted(rates, key=lambda r: -HS_NDCG_REL_SCORE[r])
    best_dcg = perl_dcg(top_n, st_rates)
    ndcg = []
    for i_pos in range(min(top_n, len(rates))):
        ndcg.append(dcg[i_pos] / best_dcg[i_pos] if best_dcg[i_pos] != 0 else 0)
    return ndcg


def perl_precision_at_n(top_n, rates, precision_rel):
    prec_n, num_relevant = [], 0
    for i_pos in range(top_n):
        r = rates[i_pos] if i_pos < len(rates) else 0
        if precision_rel[r] == 1:
            num_relevant += 1
        prec_n.append(num_relevant / (i_pos + 1))
    return prec_n


def perl_map(rates, precision_rel):
    num_relevant, avg_precision = 0, 0.0
    for i_pos in range(len(rates)):
        if precision_rel[rates[i_pos]] == 1:
            num_relevant += 1
            avg_precision += num_relevant / (i_pos + 1)
    if num_relevant == 0:
        return 0.0
    return avg_precision / num_relevant


def perl_eval_query(labels, scores, precision_rel=HS_PRECISION_REL_LETOR4):
    """EvalQuery for one query whose documents are given in input-line order."""
    # @tmpDid = sort by lineNum; @docids = sort {pred_b <=> pred_a}: Perl's sort is a stable
    # merge sort, so tied predictions keep line order; Python's sorted is stable as well.
    docids = sorted(range(len(labels)), key=lambda d: -scores[d])
    rates = [int(labels[d]) for d in docids]
    p_at_n = perl_precision_at_n(I_MAX_POSITION, rates, precision_rel)
    ndcg = perl_ndcg(len(rates), rates)  # NDCG($#rates + 1, @rates): one entry per document
    out = {"map": perl_map(rates, precision_rel), "ndcg": ndcg[-1]}
    for k in range(1, I_MAX_POSITION + 1):
        out[f"p@{k}"] = p_at_n[k - 1]
        # positions past the last document are undefined in @ndcg and print/average as 0
        out[f"ndcg@{k}"] = ndcg[k - 1] if k <= len(ndcg) else 0.0
    return out
