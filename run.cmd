@echo off
rem Sets up Stepwise (virtual environment, dependencies) if needed, then starts it.
setlocal
cd /d "%~dp0"
set PY=py -3.12
if defined STEPWISE_PYTHON set PY=%STEPWISE_PYTHON%
%PY% scripts\setup_env.py app || exit /b 1
.venv\Scripts\python.exe -m app %*
