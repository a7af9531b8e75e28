"""What finished games leave: records, replays and their steps, statistics and ratings."""
