/** One subject of one tenant (NULL: single-tenant or legacy rows), as operator work finds them. */
export interface SubjectKey {
  tenant_id: string | null;
  subject_id: string;
}
