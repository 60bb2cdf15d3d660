"""Playback, free of ROS: what the player node (and the browser viewer) plays, and when.

One room per responsibility:

- :mod:`.config`: the player's settings (each one a ROS parameter of the node);
- :mod:`.session`: a motion read and made ready to play: the joints to send, the joint
  limits (of a URDF, ``.urdf.xacro`` or ``.body`` robot model, mimic joints included; built
  by :mod:`..core.joint_limits` and judged by :mod:`..safety.limits`, as ``check`` judges them),
  the clock, the plan;
- :mod:`.clock`: motion time from elapsed time (speed, pause, seek, loops): the one clock
  of the package;
- :mod:`.sampler`: the motion at one time;
- :mod:`.mimic`: mimic joints follow their leader in everything sent;
- :mod:`.plan`: the one JointTrajectory that joint_trajectory_controller executes as the file says;
- :mod:`.goal`: a FollowJointTrajectory goal's tolerances and why a goal was refused;
- :mod:`.emit`: what one stream tick sends (joint values, root and link transforms) as plain data;
- :mod:`.schedule`: when ticks go out (drift-free), and how late they were.

Internally ``speed`` is a factor and ``rate`` a frequency in Hz.
"""
