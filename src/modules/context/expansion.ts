/**
 * Query expansion by word-vector neighbours (Kuzi, Shtok and Kurland, CIKM 2016): each word of
 * the task brings in the words of the candidates that are nearest to it in a static word-vector
 * space, as extra BM25 terms weighing less than the task's own. The evidence a question needs
 * often shares none of its words ("What martial arts has John done?" — "kickboxing",
 * "taekwondo"; "… with her family?" — "the kids"); neither the subject's own co-occurrences nor
 * feedback from the best hits found those words (bench/README.md, rounds 3 and 4), because a
 * few hundred chat turns are too few to learn what words mean, and pre-trained vectors have.
 */
import { variantPrefix } from 'src/common/text/terms';
import type { WordVectors } from 'src/common/text/word-vectors';

/**
 * Neighbours kept per task word, the least cosine a neighbour needs, and its weight as a share of
 * its cosine (a task word weighs 1). Chosen leave-one-conversation-out on LoCoMo's development
 * split (bench/README.md, round 5): each held-out conversation gains with the values the other
 * four pick, and every value near these gains in each conversation too.
 */
export const EXPANSION_NEIGHBOURS = 3;
export const EXPANSION_MIN_COSINE = 0.5;
export const EXPANSION_WEIGHT = 0.25;

/**
 * Expansion terms for the task's words (stems) from the candidates' own words (stems), when at
 * least one candidate has a task word (none otherwise, see below): for each
 * task word with a vector, its EXPANSION_NEIGHBOURS nearest candidate words at a cosine of at
 * least EXPANSION_MIN_COSINE, weighted EXPANSION_WEIGHT × cosine (the largest when several task
 * words bring one in); a candidate word that is a variant of a task word (terms.ts
 * `variantPrefix`) at that cosine weighs the cosine itself. Task words themselves are never
 * expansion terms. Taking neighbours among the candidates' words, not the whole vocabulary,
 * spends the few slots on words that can match.
 */
export function neighbourExpansion(
  taskTerms: readonly string[],
  candidateTerms: readonly (readonly string[])[],
  vectors: WordVectors,
): Map<string, number> {
  const expansion = new Map<string, number>();
  const task = new Set(taskTerms);
  const taskIndex = [...task].map((t) => vectors.indexOf(t)).filter((i) => i >= 0);
  if (taskIndex.length === 0) return expansion;
  // A near word refines what the task's own words find; it does not stand in for them. When no
  // candidate has any task word ("Draft a friendly reply to this customer's latest message"),
  // text relevance is relative to the best match, so expansion words alone would be scored as
  // the task's topic (the support set at 300 tokens fell from 100% to 81%, billing turns taking
  // the open issue's place); without them the composite score orders the candidates.
  if (!candidateTerms.some((doc) => doc.some((term) => task.has(term)))) return expansion;
  // Candidate words with a vector, each once, in order of first appearance; ties go to the
  // earlier one, so the same candidates always give the same expansion. Task words are marked
  // seen first: they are never their own expansion.
  const seen = new Uint8Array(vectors.size);
  for (const index of taskIndex) seen[index] = 1;
  const indices: number[] = [];
  for (const doc of candidateTerms) {
    for (const index of vectors.indicesOf(doc)) {
      if (seen[index] === 1) continue;
      seen[index] = 1;
      indices.push(index);
    }
  }
  const among = Int32Array.from(indices);
  // A variant of a task word ("allergic" of "allergies") is the same word split by the stemmer,
  // not a neighbour: it weighs its full cosine, a task word's weight scaled by how alike the two
  // are used (bench/README.md, round 12).
  for (const variant of variantsOf(taskIndex, vectors)) {
    // Marked seen and not a task word (variantsOf lists none): one of the candidates' words.
    if (seen[variant.index] === 1) expansion.set(variant.stem, Math.max(expansion.get(variant.stem) ?? 0, variant.cosine));
  }
  for (const q of taskIndex) {
    for (const { at, cosine } of vectors.nearest(q, among, EXPANSION_NEIGHBOURS, EXPANSION_MIN_COSINE)) {
      const term = vectors.stem(among[at]);
      expansion.set(term, Math.max(expansion.get(term) ?? 0, EXPANSION_WEIGHT * cosine));
    }
  }
  return expansion;
}

/**
 * The variants of the task's words (stems) in the word vectors: the stems that begin with a task
 * word's variant prefix (terms.ts `variantPrefix`) at a cosine of at least EXPANSION_MIN_COSINE
 * to it, each with the largest such cosine. The task words themselves are not listed.
 */
function variantsOf(taskIndex: readonly number[], vectors: WordVectors): { index: number; stem: string; cosine: number }[] {
  const found = new Map<number, { index: number; stem: string; cosine: number }>();
  const taskSet = new Set(taskIndex);
  for (const q of taskIndex) {
    const prefix = variantPrefix(vectors.stem(q));
    if (prefix === null) continue;
    for (const index of vectors.withPrefix(prefix)) {
      if (taskSet.has(index)) continue;
      const cosine = vectors.cosine(q, index);
      if (cosine < EXPANSION_MIN_COSINE || (found.get(index)?.cosine ?? -1) >= cosine) continue;
      found.set(index, { index, stem: vectors.stem(index), cosine });
    }
  }
  return [...found.values()];
}

/**
 * `to_tsquery('simple', …)` text matching the variants of the task's words that ranking would
 * count (`variantsOf`), `'allerg' | …`, or null when there are none: the context fetch reads the
 * texts that hold them, which no word of the task fetches. Stems of plain letters only, so the
 * text needs no escaping; the lookup is by exact stem, so a task word without variants (most
 * names: "joanna") costs the fetch nothing.
 */
export function variantTsQuery(taskTerms: readonly string[], vectors: WordVectors): string | null {
  const taskIndex = [...new Set(taskTerms)].map((t) => vectors.indexOf(t)).filter((i) => i >= 0);
  const stems = variantsOf(taskIndex, vectors)
    .map((v) => v.stem)
    .filter((stem) => /^[a-z]+$/.test(stem) && !taskTerms.includes(stem));
  return stems.length === 0 ? null : stems.map((stem) => `'${stem}'`).join(' | ');
}
