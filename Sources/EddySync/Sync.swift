import EddyProtocol
/// EddySync.
public enum EddySyncModule {}
