import { rowOf } from './row-shape';

/** One subject of one tenant (NULL: single-tenant or legacy rows), as operator work finds them. */
export interface SubjectKey {
  tenant_id: string | null;
  subject_id: string;
}

/** The shape of a statement answering (tenant_id, subject_id) pairs. */
export const SUBJECT_KEY_ROW = rowOf<SubjectKey>({ tenant_id: true, subject_id: true });
