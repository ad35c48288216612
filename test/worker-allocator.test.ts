// The allocator a worker process is started with (worker/allocator.ts): jemalloc when installed,
// unless the caller chose with LD_PRELOAD. The worker that really runs with it is checked in
// test/delegated-shared-watch (its start line names what is mapped).
import { jemallocPath, withWorkerAllocator } from '../worker/allocator';

const installed = (path: string) => (p: string) => p === path;
const nowhere = () => false;

describe('withWorkerAllocator', () => {
  it('preloads jemalloc where Debian or Alpine installs it', () => {
    expect(withWorkerAllocator({ A: '1' }, installed('/usr/lib/x86_64-linux-gnu/libjemalloc.so.2'))).toEqual({ A: '1', LD_PRELOAD: '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2' });
    expect(withWorkerAllocator({}, installed('/usr/lib/libjemalloc.so.2')).LD_PRELOAD).toBe('/usr/lib/libjemalloc.so.2');
  });

  it('leaves the environment as it is when jemalloc is not installed', () => {
    const env = { A: '1' };
    expect(withWorkerAllocator(env, nowhere)).toEqual({ A: '1' });
    expect(jemallocPath(nowhere)).toBeUndefined();
  });

  it('keeps what the caller chose, an empty LD_PRELOAD (glibc) included', () => {
    const jemalloc = installed('/usr/lib/x86_64-linux-gnu/libjemalloc.so.2');
    expect(withWorkerAllocator({ LD_PRELOAD: '' }, jemalloc)).toEqual({ LD_PRELOAD: '' });
    expect(withWorkerAllocator({ LD_PRELOAD: '/opt/libtcmalloc.so' }, jemalloc)).toEqual({ LD_PRELOAD: '/opt/libtcmalloc.so' });
  });
});
