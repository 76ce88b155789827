console.log('sample downstream: not yet implemented');
