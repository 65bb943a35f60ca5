"""Figure builders: each reads tidy Parquet tables and returns a table or a matplotlib figure."""
