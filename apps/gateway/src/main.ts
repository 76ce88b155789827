console.log('gateway: not yet implemented');
