import { HttpDrainService } from 'src/common/http/http-drain.service';
import { CLUSTER_SHUTDOWN_TIMEOUT_MS } from './cluster-primary';

describe('cluster primary shutdown bound', () => {
  it('outlasts a worker drain by time enough to close its pools (the primary cannot import the drain bound)', () => {
    expect(CLUSTER_SHUTDOWN_TIMEOUT_MS - HttpDrainService.DRAIN_TIMEOUT_MS).toBeGreaterThanOrEqual(5_000);
  });
});
