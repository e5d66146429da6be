/// Placeholder until the reference backend lands (issue 6).
public enum ReferenceBackendPlaceholder {}
