"""Scoring off the platform with a competition's own scoring program: two files as participants score them
(two_files, the ``score`` command) and a folder of past submissions as a leaderboard (rescore)."""
