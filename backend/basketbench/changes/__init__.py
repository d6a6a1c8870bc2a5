"""Changes: detection of performance changes per commit (changes/detection), their review
statuses and summaries, and notifications (changes/notify)."""
