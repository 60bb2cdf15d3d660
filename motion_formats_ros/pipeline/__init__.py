"""The pipeline: paths from files to files or to a player, over the registry (no ROS)."""
