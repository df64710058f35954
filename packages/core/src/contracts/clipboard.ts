export type ClipboardContent =
  | { kind: 'empty' }
  | { kind: 'text'; text: string; truncated: boolean; totalChars: number }
  | { kind: 'binary'; mime: string[]; bytes: number };

export interface Clipboard {
  describe(): Promise<string>;
  read(maxChars: number, signal?: AbortSignal): Promise<ClipboardContent>;
  write(text: string, signal?: AbortSignal): Promise<void>;
}
