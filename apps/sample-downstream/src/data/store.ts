import type { Customer, Order, OrderLine, Product } from './model.js';
import { seedCustomers, seedOrders, seedProducts, totalOf } from './seed.js';

/** The sample's in-memory data, seeded at start. One instance per app. */
export class Store {
  readonly customers: Customer[];
  readonly products: Product[];
  readonly orders: Order[];
  #clock: () => Date;

  constructor(clock: () => Date = () => new Date()) {
    this.customers = seedCustomers();
    this.products = seedProducts();
    this.orders = seedOrders(this.customers, this.products);
    this.#clock = clock;
  }

  customer(id: number): Customer | undefined {
    return this.customers.find((customer) => customer.id === id);
  }

  product(sku: string): Product | undefined {
    return this.products.find((product) => product.sku === sku);
  }

  order(id: number): Order | undefined {
    return this.orders.find((order) => order.id === id);
  }

  addCustomer(fields: Omit<Customer, 'id' | 'createdAt'>): Customer {
    const customer = { id: nextId(this.customers), ...fields, createdAt: this.#clock().toISOString() };
    this.customers.push(customer);
    return customer;
  }

  addOrder(customerId: number, lines: OrderLine[], note: string | null): Order {
    const order: Order = {
      id: nextId(this.orders),
      customerId,
      status: 'pending',
      lines,
      totalCents: totalOf(lines),
      note,
      placedAt: this.#clock().toISOString(),
    };
    this.orders.push(order);
    return order;
  }
}

function nextId(records: ReadonlyArray<{ id: number }>): number {
  return records.reduce((max, record) => Math.max(max, record.id), 0) + 1;
}
