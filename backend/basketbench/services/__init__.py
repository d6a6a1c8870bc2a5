"""Plain functions holding the queries and rules; routes and tasks call them."""
