import EddyCore
/// Scaffold for the offline-first SQLite store (issue 4).
public enum EddyStoreModule {}
