"""``motion_recorder``: records robot motion to OMF or Choreonoid ``.seq``, crash-safe.

Subscribes to one or several ``sensor_msgs/JointState`` topics (merged by joint name),
optionally the root pose from TF, IMUs and a commanded trajectory (recorded as the
``target`` group next to the measured ``actual`` group). Every sample goes to a journal
beside the output, flushed and fsynced every ``flush_interval``; on stop, SIGINT or
SIGTERM the output is written atomically from it. After a SIGKILL or power loss,
``motion-formats recover OUTPUT.journal`` writes the file from the journal.

The file is made by the same ROS-free code as ``bag2motion``'s (``assembly.assemble``
calls ``core.merge``, ``core.stamps`` and ``core.tf``): every /tf and /tf_static
transform is journaled as received and the root pose is composed by the one TF buffer
at each frame's time; times are relative to the first sample, whose ROS time (ns) is
the file's ``start_time_ns``. ``~/snapshot`` writes the file from the journal's
flushed prefix in a child process, so that recording goes on meanwhile.

    motion_recorder --ros-args -p output:=robot_log.msgpack -p topics:="[arm/joint_states, head/joint_states]"
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Generator
from datetime import datetime
from pathlib import Path
from typing import Any

from control_msgs.msg import JointTrajectoryControllerState
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from rclpy.timer import Timer
from sensor_msgs.msg import Imu, JointState
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage
from trajectory_msgs.msg import JointTrajectory

from ..core.atomic import check_writable
from ..core.errors import MotionFormatError, UnknownFormatError, WriteError
from ..core.merge import imu_name, imu_row, joint_state_problem
from ..core.model import MotionFile
from ..recording.assembly import assemble
from ..recording.journal import ERROR_NAME, ERROR_STREAM, JournalWriter, read_journal
from ..recording.recorder_config import RecorderConfig
from ..recording.recovery import groups_to_write, written_lines
from ..registry import codec_by_name, codec_for_path, write
from .scaffold import (
    LATCHED_SUB_QOS,
    RECORD_QOS,
    Param,
    ParameterError,
    declare_config,
    destroyed_if_refused,
    parameters,
    run,
)

#: Formats the recorder writes (by the output's suffix).
RECORDABLE = ("omf", "seq")


#: The node's parameters: the settings of RecorderConfig.
PARAMETERS: dict[str, Param] = parameters(RecorderConfig)


class RecorderError(MotionFormatError):
    """The recorder cannot start or continue; the node exits non-zero with this message."""


class MotionRecorder(Node):
    """Records to a journal while running; writes the output file when stopped."""

    @destroyed_if_refused
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("motion_recorder", **kwargs)
        self.config: RecorderConfig = declare_config(self, RecorderConfig)
        config = self.config
        self.done = threading.Event()
        self.exit_code = 0
        self._lock = threading.Lock()
        self.journal: JournalWriter | None = None
        self.recording = False
        self.frames = 0
        self._started_at = 0.0
        self._snapshot_written = False
        self._snapshot: subprocess.Popen[str] | None = None  # the child writing a snapshot
        self.max_frames = config.max_frames
        self.output, self.codec = self._check_output()
        self.journal_path = Path(str(self.output) + ".journal")
        # Latched static transforms as last received (journaled when recording starts).
        self._tf_static: dict[str, tuple[str, int, int, tuple[float, ...], tuple[float, ...]]] = {}
        self._flush_timer: Timer | None = None
        self._subscribe()
        self.create_service(Trigger, "~/start", self._srv_start)
        self.create_service(Trigger, "~/stop", self._srv_stop)
        # Its own callback group: while the snapshot coroutine awaits its writer, the default
        # group (the subscriptions) stays free to run.
        self.create_service(Trigger, "~/snapshot", self._srv_snapshot, callback_group=MutuallyExclusiveCallbackGroup())
        if config.duration > 0:
            self.create_timer(0.05, self._check_duration)
        if config.autostart:
            self.start()

    # ----------------------------------------------------------------- setup
    def _check_output(self) -> tuple[Path, str]:
        """The output file and its format (refused: no name, a format not recordable, an existing file)."""
        output = self.config.output
        if not output:
            raise RecorderError(
                "parameter 'output' is required (e.g. -p output:=robot_log.msgpack; "
                "motion_recorder --help lists every parameter)"
            )
        path = Path(output)
        try:
            codec = codec_for_path(path, for_write=True)
        except UnknownFormatError as exc:
            raise RecorderError(f"{path}: cannot record to this suffix ({exc})") from None
        if codec.name not in RECORDABLE:
            raise RecorderError(f"{path}: the recorder writes OMF (.msgpack, .yaml, .json) or .seq, not {codec.name}")
        check_writable(path, self.config.overwrite, folder=False)  # a file: never in place of a folder
        return path, codec.name

    def _subscribe(self) -> None:
        deep = RECORD_QOS
        config = self.config
        for topic in config.topics:
            self.create_subscription(JointState, topic, lambda m, t=topic: self._on_joints(m, t), deep)
        if config.target_joint_state_topic:
            self.create_subscription(JointState, config.target_joint_state_topic, self._on_target_joints, deep)
        if config.controller_state_topic:
            topic = config.controller_state_topic
            self.create_subscription(
                JointTrajectoryControllerState, topic, lambda m: self._on_controller(m, topic), deep
            )
        if config.target_topic:
            self.create_subscription(JointTrajectory, config.target_topic, self._on_trajectory, 100)
        for topic in config.imu_topics:
            self.create_subscription(Imu, topic, lambda m, t=topic: self._on_imu(m, t), deep)
        if config.world_frame and config.root_frame:
            self.create_subscription(TFMessage, "/tf", self._on_tf, deep)
            static = LATCHED_SUB_QOS
            self.create_subscription(TFMessage, "/tf_static", lambda m: self._on_tf(m, static=True), static)

    # ----------------------------------------------------------------- recording
    def start(self) -> None:
        with self._lock:
            if self.recording:
                return
            if self.journal is None:
                config = self.config
                metadata = {
                    "output": str(self.output.resolve()),
                    "format": self.codec,
                    "name": config.name or self.output.stem,
                    "robot": config.robot,
                    "date": datetime.now().isoformat(),
                    "joints": list(config.joints),
                    "topics": list(config.topics),
                    "stamps": config.stamps,
                    "rate": config.rate,
                    "world_frame": config.world_frame,
                    "root_frame": config.root_frame,
                    "write_options": self._write_options(),
                }
                try:
                    self.journal = JournalWriter(self.journal_path, metadata, config.flush_interval)
                except FileExistsError:
                    raise RecorderError(
                        f"{self.journal_path} exists: an earlier recording was not finished. Recover it with "
                        f"`motion-formats recover {self.journal_path}` or remove it"
                    ) from None
                except OSError as exc:
                    raise RecorderError(f"{self.journal_path}: {exc.strerror or exc}") from None
                self._flush_timer = self.create_timer(max(config.flush_interval, 0.01), self._flush)
                try:
                    for child, (parent, stamp, recv, xyz, xyzw) in self._tf_static.items():
                        self.journal.tf(parent, child, stamp, recv, xyz, xyzw, static=True)
                except OSError as exc:
                    raise RecorderError(f"{self.journal_path}: {exc.strerror or exc}") from None
            self.recording = True
            self._started_at = time.monotonic()
        self.get_logger().info(f"recording to {self.output} (journal {self.journal_path})")

    def _write_failed(self, exc: OSError) -> None:
        """Disk full or I/O error: stop, keep the journal recoverable, exit non-zero."""
        self.recording = False
        self.exit_code = 1
        self.get_logger().error(
            f"recording stopped: {self.journal_path}: {exc.strerror or exc}. What was recorded so far can be "
            f"written with `motion-formats recover {self.journal_path}`"
        )
        self.done.set()

    def _record(self, fn: Any, *args: Any) -> None:
        if not self.recording or self.journal is None:
            return
        with self._lock:
            try:
                fn(*args)
            except OSError as exc:
                self._write_failed(exc)
            except ValueError as exc:  # a message the journal cannot hold (recovery would refuse it)
                self.get_logger().warning(f"{fn.__name__} message skipped: {exc}", throttle_duration_sec=5.0)

    def _flush(self) -> None:
        if self.journal is not None and self.recording:
            with self._lock:
                try:
                    self.journal.flush()
                except OSError as exc:
                    self._write_failed(exc)

    def _on_joints(self, msg: JointState, topic: str) -> None:
        if not self.recording or self.journal is None:
            return
        receive = self.get_clock().now().nanoseconds
        names = msg.name
        problem = joint_state_problem(names, msg.position, msg.velocity, msg.effort)
        if problem is not None:
            self.get_logger().warning(f"{topic}: JointState skipped: {problem}", throttle_duration_sec=5.0)
            return
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        self._record(
            self.journal.joints,
            topic,
            names,
            stamp,
            receive,
            msg.position or None,
            msg.velocity or None,
            msg.effort or None,
        )
        self.frames += 1
        limit = self.max_frames
        if limit > 0 and self.frames >= limit:
            self.get_logger().info(f"max_frames {limit} reached")
            self.recording = False
            self.done.set()

    def _on_target_joints(self, msg: JointState) -> None:
        if not self.recording or self.journal is None or not msg.position:
            return
        receive = self.get_clock().now().nanoseconds
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        self._record(
            self.journal.trajectory,
            list(msg.name),
            stamp,
            receive,
            [0],
            [msg.position],
            [msg.velocity] if len(msg.velocity) == len(msg.name) else None,
        )

    def _on_controller(self, msg: JointTrajectoryControllerState, topic: str) -> None:
        """The controller's view: reference → target, feedback → actual, error → actual's error channel."""
        if not self.recording or self.journal is None:
            return
        receive = self.get_clock().now().nanoseconds
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        names, n = list(msg.joint_names), len(msg.joint_names)
        # control_msgs before 5.0 (Humble) names reference / feedback desired / actual.
        ref = msg.reference if hasattr(msg, "reference") else msg.desired
        fb = msg.feedback if hasattr(msg, "feedback") else msg.actual
        err = msg.error
        if len(ref.positions) == n and n:
            velocities = [ref.velocities] if len(ref.velocities) == n else None
            self._record(self.journal.trajectory, names, stamp, receive, [0], [ref.positions], velocities)
        if len(fb.positions) == n and n:
            effort = fb.effort if len(fb.effort) == n else None
            self._record(self.journal.joints, topic, names, stamp, receive, fb.positions, fb.velocities or None, effort)
        if len(err.positions) == n and n:
            error_names = [ERROR_NAME + name for name in names]
            self._record(self.journal.joints, ERROR_STREAM + topic, error_names, stamp, receive, err.positions)

    def _on_trajectory(self, msg: JointTrajectory) -> None:
        if not self.recording or self.journal is None or not msg.points:
            return
        receive = self.get_clock().now().nanoseconds
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        offsets = [p.time_from_start.sec * 1_000_000_000 + p.time_from_start.nanosec for p in msg.points]
        n = len(msg.joint_names)
        velocities = [p.velocities for p in msg.points] if all(len(p.velocities) == n for p in msg.points) else None
        self._record(
            self.journal.trajectory,
            list(msg.joint_names),
            stamp,
            receive,
            offsets,
            [p.positions for p in msg.points],
            velocities,
        )

    def _on_imu(self, msg: Imu, topic: str) -> None:
        if not self.recording or self.journal is None:
            return
        receive = self.get_clock().now().nanoseconds
        stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
        row = imu_row(msg)
        self._record(self.journal.imu, imu_name(topic), stamp, receive, row[0:4], row[4:7], row[7:10])

    def _on_tf(self, msg: TFMessage, static: bool = False) -> None:
        """Every transform goes to the journal as received; the TF buffer composes them when writing."""
        receive = self.get_clock().now().nanoseconds
        rows = []
        for t in msg.transforms:
            tr, q = t.transform.translation, t.transform.rotation
            stamp = t.header.stamp.sec * 1_000_000_000 + t.header.stamp.nanosec
            row = (t.header.frame_id, stamp, receive, (tr.x, tr.y, tr.z), (q.x, q.y, q.z, q.w))
            if static:
                self._tf_static[t.child_frame_id] = row
            rows.append((t.child_frame_id, row))
        if not self.recording or self.journal is None:
            return
        journal = self.journal

        def write() -> None:
            for child, (parent, stamp, recv, xyz, xyzw) in rows:
                journal.tf(parent, child, stamp, recv, xyz, xyzw, static=static)

        self._record(write)

    # ----------------------------------------------------------------- finishing
    def _check_duration(self) -> None:
        if self.recording and time.monotonic() - self._started_at >= self.config.duration:
            self.get_logger().info(f"duration {self.config.duration:g} s reached")
            self.recording = False
            self.done.set()

    def finish(self) -> bool:
        """Close the journal and write the output; returns False when nothing was recorded."""
        with self._lock:
            self.recording = False
            journal = self.journal
            self.journal = None
        snapshot = self._snapshot
        if snapshot is not None and snapshot.wait() == 0:  # its file must not replace the final one
            self._snapshot_written = True  # written, though its callback may never resume to say so
        if journal is None:
            return False
        journal.close()
        try:
            motion_file = self._assemble()
        except ValueError as exc:
            self.get_logger().warning(f"{exc}; nothing written, journal removed")
            self.journal_path.unlink(missing_ok=True)
            return False
        overwrite = self.config.overwrite or self._snapshot_written
        write(motion_file, self.output, overwrite=overwrite, **self._write_options())
        self.journal_path.unlink(missing_ok=True)
        self._report(motion_file, "wrote")
        return True

    def _assemble(self, limit: int | None = None) -> MotionFile:
        """The motion file the journal (its first ``limit`` bytes) stands for; what it reports goes to the log."""
        content = read_journal(self.journal_path, limit)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            motion_file = assemble(
                content,
                joints=list(self.config.joints) or None,
                stamps=self.config.stamps,
                rate=self.config.rate,
            )
            motion_file = groups_to_write(motion_file, codec_by_name(self.codec), self.output)
        for w in caught:
            self.get_logger().warning(str(w.message))
        return motion_file

    def _write_options(self) -> dict[str, Any]:
        """The output codec's options the settings give: ``seq_version`` where it declares a ``version``."""
        return codec_by_name(self.codec).accepted({"version": self.config.seq_version}, "write")

    def _report(self, motion_file: MotionFile, verb: str) -> None:
        for line in written_lines(motion_file, codec_by_name(self.codec), self.output):
            self.get_logger().info(f"{verb} {line}")

    def _srv_start(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        try:
            self.start()
        except RecorderError as exc:
            response.success, response.message = False, str(exc)
            return response
        response.success, response.message = True, f"recording to {self.output}"
        return response

    def _srv_stop(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        response.success, response.message = True, "stopping"
        self.recording = False
        self.done.set()
        return response

    async def _srv_snapshot(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        """Write the output from what is flushed so far; recording goes on meanwhile.

        A child process assembles and writes the file from a consistent copy (the journal's
        flushed prefix: the journal only grows). This callback is a coroutine: while it
        awaits the child, the executor keeps taking samples (neither a blocked executor
        nor a thread of this process sharing its interpreter lock holds them up).
        """
        if self._snapshot is not None:
            response.success, response.message = False, "a snapshot is being written"
            return response
        with self._lock:
            if self.journal is None:
                response.success, response.message = False, "not recording"
                return response
            try:
                size = self.journal.flush()
            except OSError as exc:
                response.success, response.message = False, f"{self.journal_path}: {exc.strerror or exc}"
                return response
        # Lower priority: on a busy machine, taking samples comes first.
        nice = ["nice", "-n", "10"] if shutil.which("nice") else []
        command = [
            *nice,
            sys.executable,
            "-m",
            "motion_formats_ros.recording.snapshot",
            str(self.journal_path),
            str(size),
        ]
        command.append(str(self.output))
        if self.config.overwrite or self._snapshot_written:
            command.append("--overwrite")
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            self._snapshot = subprocess.Popen(command, stdout=out, stderr=err, text=True)
            try:
                while self._snapshot.poll() is None:
                    await _NextTurn()
                code = self._snapshot.returncode
            finally:
                self._snapshot = None
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
        for line in stderr.splitlines():
            if line.startswith("warning: "):
                self.get_logger().warning(line.removeprefix("warning: "))
        if code != 0:
            lines = stderr.strip().splitlines()
            response.success = False
            response.message = (lines[-1] if lines else f"exit status {code}").removeprefix("snapshot failed: ")
            return response
        self._snapshot_written = True
        frames = json.loads(stdout or "{}")
        count = frames.get("actual", next(iter(frames.values()), 0))
        response.success, response.message = True, f"snapshot: {count} frames in {self.output}"
        return response


class _NextTurn:
    """Awaiting this hands control back to the executor once (rclpy runs coroutine callbacks as tasks)."""

    def __await__(self) -> Generator[None, None, None]:
        yield


def _finish(node: MotionRecorder, code: int) -> int:
    """Write the output from the journal (also after SIGINT / SIGTERM); keep it on failure."""
    if code != 0:
        return code
    try:
        node.finish()
    except (MotionFormatError, OSError) as exc:
        print(f"error: {exc}; the journal {node.journal_path} is kept (motion-formats recover)", file=sys.stderr)
        return 1
    return code


def main(args: list[str] | None = None) -> int:
    """Entry point (``motion_recorder``); returns the exit status."""
    return run(
        MotionRecorder, "motion_recorder", (MotionFormatError, RecorderError, WriteError, ParameterError), _finish, args
    )


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    entry()


__all__ = ["MotionRecorder", "RecorderError", "entry", "main"]
