"""kube-scheduler's topology plugins, one module each, as pure functions.

Each module ports one plugin's PreFilter / Filter / PreScore / Score / NormalizeScore
from ``pkg/scheduler/framework/plugins/<plugin>/`` (v1.33-v1.36: their code is the same
but for ImageLocality's image volumes in 1.36). Raw scores and normalisation are
separate functions: kube-scheduler normalises over the nodes that passed the filters
(:mod:`policytest.scoring.plugins.profile` runs them as the framework does), while
Volcano's nodeorder calls the same Score functions and normalises its own way.
"""
