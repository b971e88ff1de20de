"""The official KLUE metrics, one module per task, all on the 0-100 scale."""
