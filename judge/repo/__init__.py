"""Reading a repository at the task's base commit, never later: safe git reads, a candidate
patch applied to the base commit in a temporary index (no work tree), Python definitions, the
code around a change, and static facts about the patched files. Nothing here runs the
candidate's code.
"""
