export const DEFAULT_MAX_BUFFERED_OPERATIONS = 1_000;

/**
 * The operations of one sampled-out trace, held until the trace ends. Bounded so a long or
 * runaway trace cannot grow memory without limit: the first `capacity` operations are kept
 * (they include the trace create and the earliest span creates, which later updates need)
 * and the rest are counted as dropped.
 */
export class OperationBuffer<T> {
  private items: T[] = [];
  private droppedCount = 0;

  constructor(readonly capacity: number = DEFAULT_MAX_BUFFERED_OPERATIONS) {}

  /** False when the operation was dropped because the buffer is full. */
  push(item: T): boolean {
    if (this.items.length >= this.capacity) {
      this.droppedCount++;
      return false;
    }
    this.items.push(item);
    return true;
  }

  get size(): number {
    return this.items.length;
  }

  get dropped(): number {
    return this.droppedCount;
  }

  /** Hands out the kept operations in FIFO order and empties the buffer. */
  drain(): T[] {
    const out = this.items;
    this.items = [];
    return out;
  }
}
