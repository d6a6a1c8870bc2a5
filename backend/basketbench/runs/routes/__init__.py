"""The runs domain's routers: runs (list, claim, update) and ci (webhooks, trigger)."""
