import * as fs from 'node:fs';
import * as path from 'node:path';

/** Where claim-checked payloads live. Keys are content hashes, so writing the same payload twice is harmless. */
export interface BlobStore {
  put(key: string, bytes: Uint8Array): void;
  get(key: string): Uint8Array;
  /** The key to keep `bytes` under (64 hex digits); default: their SHA-256. */
  keyOf?(bytes: Uint8Array): string;
}

/** A blob store in a directory (the embedded default: `<dataDir>/payloads`), one file per payload, written atomically. */
export class FileBlobStore implements BlobStore {
  constructor(readonly dir: string) {}

  put(key: string, bytes: Uint8Array): void {
    const file = path.join(this.dir, key);
    if (fs.existsSync(file)) return;
    fs.mkdirSync(this.dir, { recursive: true });
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, bytes);
    fs.renameSync(temp, file);
  }

  get(key: string): Uint8Array {
    if (!/^[a-f0-9]{64}$/.test(key)) throw new Error(`Not a payload key: ${key}`);
    return fs.readFileSync(path.join(this.dir, key));
  }
}

/** The blob store of a data directory. */
export function blobStoreIn(dataDir: string): FileBlobStore {
  return new FileBlobStore(path.join(dataDir, 'payloads'));
}
