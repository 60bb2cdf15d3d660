"""One module per file format; see :data:`motion_formats_ros.registry.CODECS`."""
