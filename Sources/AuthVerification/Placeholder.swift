/// Placeholder until the verification kit lands (issue 3).
public enum AuthVerificationPlaceholder {}
