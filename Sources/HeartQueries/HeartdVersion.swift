/// The version heartd reports in `status`, exports and `--version`.
public enum HeartdVersion {
    public static let string = "0.1.0"
}
