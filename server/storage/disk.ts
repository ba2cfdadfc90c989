import fs from 'node:fs/promises';
import path from 'node:path';
import { DiskLayout } from './paths.ts';

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

/** File operations on the object store; every path comes from DiskLayout. */
export class ObjectFiles {
  readonly layout: DiskLayout;

  constructor(root: string) {
    this.layout = new DiskLayout(root);
  }

  /** The file holding one version of an object, or null for rows without a usable version. */
  fileFor(bucket: string, key: string, version: string | null | undefined): string | null {
    if (!version) return null;
    try {
      return this.layout.objectFile(bucket, key, version);
    } catch {
      return null;
    }
  }

  async prepareBucket(bucket: string): Promise<string> {
    const dir = this.layout.bucketDir(bucket);
    await fs.mkdir(dir, { recursive: true });
    return dir;
  }

  /**
   * Moves a finished temp file to its final name, creating the key's folders. A
   * concurrent removal may prune a folder between mkdir and rename, so that is retried.
   */
  async place(from: string, to: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      await fs.mkdir(path.dirname(to), { recursive: true });
      try {
        await fs.rename(from, to);
        return;
      } catch (error) {
        const missingFolder = (error as NodeJS.ErrnoException).code === 'ENOENT' && (await exists(from));
        if (!missingFolder || attempt >= 3) throw error;
      }
    }
  }

  /** Removes a file if present, then the folders it leaves empty (up to its bucket). */
  async remove(file: string | null, bucket?: string): Promise<void> {
    if (!file) return;
    await fs.rm(file, { force: true });
    if (bucket) await this.pruneEmptyParents(path.dirname(file), this.layout.bucketDir(bucket));
  }

  private async pruneEmptyParents(dir: string, stop: string): Promise<void> {
    let current = dir;
    while (current.startsWith(stop + path.sep)) {
      try {
        await fs.rmdir(current);
      } catch {
        return; // not empty (or already gone): stop climbing
      }
      current = path.dirname(current);
    }
  }

  /** Removes a deleted bucket's directory, which holds at most empty folders by then. */
  async removeBucket(bucket: string): Promise<void> {
    await fs.rm(this.layout.bucketDir(bucket), { recursive: true, force: true });
  }
}
