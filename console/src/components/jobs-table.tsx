import { formatTime } from './timeline-row.js';

/** A compile job as `GET /admin/jobs` lists it and `POST /admin/jobs/{id}/requeue` answers it. */
export interface Job {
  job_id: string;
  subject_id: string;
  tenant_id: string | null;
  status: string;
  memories_created: number | null;
  error: string | null;
  created_at: string;
}

/**
 * The job listing. Only a failed job gets a Requeue button: the service refuses (409) any other,
 * since putting a pending, running or completed job back would compile twice. `busy` is the id
 * being requeued, so a double click sends one request.
 */
export function JobsTable({ jobs, busy, onRequeue }: { jobs: readonly Job[]; busy: string | null; onRequeue: (job: Job) => void }) {
  return (
    <div class="scores-wrap">
      <table class="grid">
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Subject</th>
            <th scope="col">Tenant</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">Memories</th>
            <th scope="col">Error</th>
            <th scope="col">
              <span class="sr-only">Action</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((j) => (
            <tr key={j.job_id} data-status={j.status} data-job-id={j.job_id}>
              <td>{formatTime(j.created_at)}</td>
              <td>{j.subject_id}</td>
              <td>{j.tenant_id ?? '—'}</td>
              <td>{j.status}</td>
              <td class="num">{j.memories_created ?? '—'}</td>
              <td>{j.error ?? ''}</td>
              <td>
                {j.status === 'failed' ? (
                  <button type="button" disabled={busy === j.job_id} aria-label={`Requeue job ${j.job_id}`} onClick={() => onRequeue(j)}>
                    Requeue
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
