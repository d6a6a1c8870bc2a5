"""The recommend domain's routers: recommend (ranking, groups, branch sizes, history)
and advise (advise runs)."""
