/** Real-looking outputs of the test runners and compilers that the signature module recognises. */

export const VITEST = ` RUN  v4.1.12 /home/dev/app

 ❯ src/auth/login.test.ts (2 tests | 1 failed) 12ms
   × login > returns a token with the user id 8ms
     → expected undefined to be 'abc'

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  src/auth/login.test.ts > login > returns a token with the user id
AssertionError: expected undefined to be 'abc' // Object.is equality

- Expected
+ Received

- abc
+ undefined

 ❯ src/auth/login.test.ts:14:25
     12|   it('returns a token with the user id', async () => {
     13|     const token = await login('ann', 'pw');
     14|     expect(token.userId).toBe('abc');

 Test Files  1 failed (1)
      Tests  1 failed | 1 passed (2)
   Start at  10:41:02
   Duration  412ms`;

export const JEST = `FAIL src/auth/login.test.ts
  login
    ✓ rejects a bad password (3 ms)
    ✕ returns a token (5 ms)

  ● login › returns a token

    expect(received).toContain(expected) // indexOf

    Expected substring: "userId"
    Received string:    "eyJhbGciOi"

      12 |   const token = await login('ann', 'pw');
    > 13 |   expect(token).toContain('userId');
         |                 ^

      at Object.<anonymous> (src/auth/login.test.ts:13:17)

Test Suites: 1 failed, 1 total
Tests:       1 failed, 1 passed, 2 total
Time:        0.512 s`;

export const PYTEST = `============================= test session starts ==============================
platform linux -- Python 3.11.4, pytest-7.4.0, pluggy-1.2.0
rootdir: /home/dev/app
collected 2 items

tests/test_math.py F.                                                    [100%]

=================================== FAILURES ===================================
___________________________________ test_add ___________________________________

    def test_add():
>       assert add(1, 2) == 4
E       assert 3 == 4
E        +  where 3 = add(1, 2)

tests/test_math.py:5: AssertionError
=========================== short test summary info ============================
FAILED tests/test_math.py::test_add - assert 3 == 4
========================= 1 failed, 1 passed in 0.03s ==========================`;

export const GO_TEST = `=== RUN   TestAdd
    math_test.go:12: Add(1, 2) = 3, want 4
--- FAIL: TestAdd (0.00s)
=== RUN   TestSub
--- PASS: TestSub (0.00s)
FAIL
FAIL	example.com/math	0.004s
FAIL`;

export const TSC = `src/auth/login.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'.
src/auth/login.ts(50,3): error TS2304: Cannot find name 'foo'.`;

export const TSC_PRETTY = `\u001b[96msrc/auth/login.ts\u001b[0m:\u001b[93m42\u001b[0m:\u001b[93m7\u001b[0m - \u001b[91merror\u001b[0m\u001b[90m TS2322: \u001b[0mType 'string' is not assignable to type 'number'.

\u001b[7m42\u001b[0m   const id: number = user.id;
\u001b[7m  \u001b[0m \u001b[91m          ~~\u001b[0m

Found 1 error in src/auth/login.ts\u001b[90m:42\u001b[0m`;

export const NODE = `/home/dev/app/src/server.js:17
  const port = config.server.port;
                             ^

TypeError: Cannot read properties of undefined (reading 'port')
    at Object.<anonymous> (/home/dev/app/src/server.js:17:30)
    at Module._compile (node:internal/modules/cjs/loader:1256:14)
    at node:internal/main/run_main_module:23:47

Node.js v20.11.0`;

export const PYTHON_TRACEBACK = `Traceback (most recent call last):
  File "/home/dev/app/main.py", line 12, in <module>
    main()
  File "/home/dev/app/main.py", line 8, in main
    value = int(raw)
ValueError: invalid literal for int() with base 10: 'abc'`;
