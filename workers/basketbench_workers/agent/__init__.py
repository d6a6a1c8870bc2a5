"""The worker's agent: the API client, registration and heartbeat, the machine's hardware
tag, attempts and retry policy and progress reporting."""
