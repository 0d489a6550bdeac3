// Sessions module
