/** What an embedding provider does; in its own file so providers and their factory do not import one another. */
export interface EmbeddingProvider {
  readonly name: string;
  readonly dimensions: number;
  /**
   * True when embed() goes over the network: the compile pipeline then never calls it inside
   * a transaction (it would hold the subject lock, and PGlite's only connection, meanwhile).
   */
  readonly remote?: boolean;
  /**
   * True when the embedding is a function of the text's own words (the stub: hashed words and
   * character n-grams). Its cosine is then word overlap without rarity weights, which context
   * ranking already measures with BM25; counting it again as semantic relevance (0–8) lets short
   * texts that share one frequent word, a speaker's name, outrank the item a task is about.
   */
  readonly lexical?: boolean;
  /** One vector of `dimensions` numbers per text, in order. May throw: callers degrade gracefully. */
  embed(texts: string[]): Promise<number[][]>;
  /**
   * Present when the embedding is a pure local function of the text (stub). Returns a scorer
   * giving the cosine between the query's embedding and a text's, computed from the texts
   * themselves: the same number as the cosine of the stored vectors, without reading or
   * comparing 1,536-number arrays in SQL (about 0.5 ms per memory on PostgreSQL without
   * pgvector). Null when the query has nothing to embed.
   */
  localSimilarity?(query: string): ((text: string) => number) | null;
}
