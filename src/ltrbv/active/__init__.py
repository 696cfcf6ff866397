"""Active estimation of ranking performance (Sawade et al. 2013).

Modules, one idea each:

``moments``          E[L|x], E[(L-R)^2|x], E[(delta-Delta)^2|x] for DCG / ERR by dynamic programming (Theorem 3)
``rankings``         ranking functions as per-document ranks; the simulated index update
``sampling``         labeling costs lambda(x) and the sampling distributions of Corollary 1 (eq. 16, 17)
``estimation``       Algorithm 1 with many repetitions at once and the estimator of eq. 6
``relevance``        label models p(y|x,z;theta): RF_class and the ordered logit
``models``           train one model on a partition and score the pool (§5 setup)
``pool``             partitions and the pool of unlabeled queries
``experiments``      the simulations of Figs. 2-5, their summaries and the label savings
``plots``            the figures
``label_probs_file`` the label-probabilities file of the CLI
``cli``              ``ltrbv sampling-distribution``
``workflow``         the file grid of rules/active.smk
"""
