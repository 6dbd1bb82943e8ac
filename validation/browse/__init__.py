"""Browse a run: a static, self-contained site of every task, its rubric, its candidates and
why each scored what it did — safe to open from disk or publish as a CI artifact (no server,
no JavaScript, a Content-Security-Policy that forbids scripts, every text escaped)."""
