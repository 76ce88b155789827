/** The service the reference page's example controller asks for. */
export class OrderStore {
  find(id: number, expand: boolean) {
    return { id, expand };
  }

  place(order: unknown, requestId?: string) {
    return { order, requestId };
  }
}
