// The part of qrcode the page uses, for tsconfig.web.json (its "paths" point 'qrcode' here).
// @types/qrcode also declares the Node build (files, streams) and so references Node's types,
// which would let any page use `process` or `Buffer` unchecked. The tests use @types/qrcode.

export interface BitMatrix {
  size: number;
  /** 1 for a dark module. */
  get(row: number, col: number): number;
}

export function create(text: string): { modules: BitMatrix };

export function toDataURL(text: string, options?: { width?: number }): Promise<string>;
