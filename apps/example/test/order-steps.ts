/** What both order-flow tests do through the example's HTTP API: place a keyboard and a monitor, cancel the keyboard. */
export async function placeTwoOrdersAndCancelOne(url: string): Promise<{ keyboard: { orderId: string }; monitor: { orderId: string } }> {
  const place = (item: string, amount: number) =>
    fetch(`${url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ item, amount }),
    }).then((response) => response.json() as Promise<{ orderId: string }>);
  const keyboard = await place('keyboard', 49.9);
  const monitor = await place('monitor', 189);
  await fetch(`${url}/orders/${keyboard.orderId}`, { method: 'DELETE' });
  return { keyboard, monitor };
}

/** The billing ledger those orders must produce: two invoices and the cancelled order's refund. */
export function expectedLedger({ keyboard, monitor }: { keyboard: { orderId: string }; monitor: { orderId: string } }): object[] {
  return [
    { orderId: keyboard.orderId, kind: 'invoice', amount: 49.9 },
    { orderId: monitor.orderId, kind: 'invoice', amount: 189 },
    { orderId: keyboard.orderId, kind: 'refund', amount: 49.9, reason: 'cancelled by the customer' },
  ];
}
