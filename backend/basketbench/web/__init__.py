"""HTTP plumbing shared by every domain's routes: dependencies (deps), error answers,
listing and sorting parameters, request guards, security headers, compression, the
offline API docs and the dashboard's static files."""
