"""What the interfaces share about a request: parsing what it brings (`inputs`, `times`), paging
long lists (`paging`), who sent it (`clients`), counting it against a rate (`counters`), and the
domain's errors with their HTTP statuses (`errors`). Below every app; imports no app."""
