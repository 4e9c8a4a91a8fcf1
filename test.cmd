@echo off
rem Sets up everything the tests need, then runs the test suite. Arguments go to pytest.
setlocal
cd /d "%~dp0"
set PY=py -3.12
if defined STEPWISE_PYTHON set PY=%STEPWISE_PYTHON%
%PY% scripts\setup_env.py test || exit /b 1
set QT_QPA_PLATFORM=offscreen
.venv\Scripts\python.exe -m pytest %*
