// The blob store of the embedded default: one file per blob in a folder (PLANNER_BLOB_DIR,
// default .planner/blobs under the working directory), fanned out by the key's first two hex
// digits. A write goes to a temporary file in the same folder and is renamed into place, so a
// reader never sees a half-written blob and a crash leaves at most a stray *.tmp file.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { BLOB_KEY, BlobNotFoundError, type BlobStore } from './blob-store';

export class FolderBlobStore implements BlobStore {
  readonly location: string;

  constructor(dir: string) {
    this.location = resolve(dir);
  }

  pathOf(key: string): string {
    if (!BLOB_KEY.test(key)) throw new Error(`bad blob key ${JSON.stringify(key)}: a lowercase hex sha256`);
    return join(this.location, key.slice(0, 2), key);
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const path = this.pathOf(key);
    // Content-addressed: a blob of the right size under this key is this blob.
    const existing = await stat(path).catch(() => undefined);
    if (existing?.size === bytes.length) return;
    await mkdir(join(this.location, key.slice(0, 2)), { recursive: true });
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      const file = await open(tmp, 'wx');
      try {
        await file.writeFile(bytes);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }

  async get(key: string): Promise<Uint8Array> {
    try {
      // The key is hex, so the path is inside the folder; a symlink in it must not lead out of it
      // (the codec endpoint reads blobs for callers: what it reads stays inside PLANNER_BLOB_DIR).
      const [real, root] = await Promise.all([realpath(this.pathOf(key)), realpath(this.location)]);
      if (!real.startsWith(root + sep)) throw new Error(`blob ${key} in ${this.location} is a link to a file outside the blob store; refusing to read it`);
      return await readFile(real);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobNotFoundError(key, this.location);
      throw err;
    }
  }
}
