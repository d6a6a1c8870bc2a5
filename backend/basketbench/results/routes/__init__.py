"""HTTP routes of the results domain: /results (list and ingest), /configurations/latest,
/io/breakdown."""
