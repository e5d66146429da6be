/// Placeholder.
public enum AuthCorePlaceholder {}
