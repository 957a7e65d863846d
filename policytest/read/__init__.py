"""Reading: files with source positions (inside ConfigMap strings too), yaml.v2 scalar
typing, the fast libyaml reader, JSON Schema shape checks, recognising what a document
is, and the one walker that decides which files a command reads."""
