"""SWE-bench replay and the four validation checks; depends on `judge` and `rubric_gen`."""
