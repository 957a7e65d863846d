"""Volcano's scheduling of jobs: PodGroups, Queues and PriorityClasses (the model and
its input, :mod:`policytest.sessions.objects` and :mod:`policytest.sessions.jobs`),
and the session that the real scheduler runs over them
(:mod:`policytest.sessions.session`)."""
