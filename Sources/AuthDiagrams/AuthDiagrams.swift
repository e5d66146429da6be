/// State diagrams generated from the explorer's projected graphs (being built: see issue 4).
public enum AuthDiagrams {}
