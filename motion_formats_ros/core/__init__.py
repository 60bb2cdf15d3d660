"""The core: ROS-free, format-free; imports nothing above it (see README, Layout)."""
