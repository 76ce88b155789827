export interface Customer {
  id: number;
  name: string;
  // Personal data on purpose: the gateway's privacy rules redact it.
  email: string;
  phone: string;
  city: string;
  createdAt: string;
}

export interface Product {
  sku: string;
  name: string;
  category: 'hardware' | 'accessories' | 'software';
  priceCents: number;
  stock: number;
}

export type OrderStatus = 'pending' | 'paid' | 'shipped' | 'cancelled';

export interface OrderLine {
  sku: string;
  quantity: number;
  unitPriceCents: number;
}

export interface Order {
  id: number;
  customerId: number;
  status: OrderStatus;
  lines: OrderLine[];
  totalCents: number;
  note: string | null;
  placedAt: string;
}
