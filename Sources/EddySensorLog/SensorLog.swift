import EddyCore
/// Scaffold for the sensor-log reader and writer (issue 2).
public enum SensorLogModule {}
