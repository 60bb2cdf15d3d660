"""The only part of the package that imports rclpy: message adapters and nodes."""
