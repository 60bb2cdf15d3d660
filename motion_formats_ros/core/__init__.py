"""The core: free of ROS and of every layer above it; imports nothing above it.

The model, errors, notices, options, timing, spatial maths, TF, kinematics and bounded
input and atomic output. A few modules serve one layer but must not depend on it: the bag
codec's distro, storage and compression names (``distros``), the text codecs' fast YAML and
msgpack paths (``serial``), the project's example files (``examples``).
"""
