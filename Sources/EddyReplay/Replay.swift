import EddyCore
import EddySensorLog
/// Scaffold for the replay runner (issue 2).
public enum ReplayModule {}
