"""The bagging experiments of Ganjisaffar et al. (2011): bag size (Fig. 4), variance across trials (Table 5) and
the performance table (Table 4); config section ``bagging``."""
