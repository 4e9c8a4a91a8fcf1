# Windows additions to native/CMakeLists.txt, included right after its project() through
# CMAKE_PROJECT_sd_stage_INCLUDE (native/build.py sets it for every Windows build, cross or
# native): a version resource and the UTF-8 / long-path manifest in sd-stage.exe and
# sd-cli.exe, and for mingw-w64 the compat header forced into every C file.
enable_language(RC)
set(_stepwise_win ${CMAKE_CURRENT_LIST_DIR})

if(MINGW)
    add_compile_options("$<$<COMPILE_LANGUAGE:C>:-include${_stepwise_win}/compat.h>")
endif()

string(REGEX MATCHALL "[0-9]+" _stepwise_parts "${SD_STAGE_VERSION}.0.0.0")
list(SUBLIST _stepwise_parts 0 4 _stepwise_parts)
string(REPLACE ";" "," STEPWISE_VERSION_COMMAS "${_stepwise_parts}")
set(STEPWISE_MANIFEST "${_stepwise_win}/sd-stage.manifest")
if(MSVC)
    set(STEPWISE_RC_MANIFEST 0)  # MSVC's linker embeds the .manifest source itself
else()
    set(STEPWISE_RC_MANIFEST 1)
endif()

function(_stepwise_add_resources)
    foreach(exe IN ITEMS sd-stage sd-cli)
        if(NOT TARGET ${exe})
            message(FATAL_ERROR "stepwise_windows.cmake: no target ${exe} to add the resources to")
        endif()
        set(STEPWISE_EXE ${exe})
        if(exe STREQUAL "sd-stage")
            set(STEPWISE_DESCRIPTION "Stepwise engine: one stage of FLUX.2 klein per process")
        else()
            set(STEPWISE_DESCRIPTION "stable-diffusion.cpp CLI (Stepwise reference build)")
        endif()
        configure_file(${_stepwise_win}/version.rc.in ${CMAKE_BINARY_DIR}/generated/${exe}.rc @ONLY)
        target_sources(${exe} PRIVATE ${CMAKE_BINARY_DIR}/generated/${exe}.rc)
        if(MSVC)
            target_sources(${exe} PRIVATE ${STEPWISE_MANIFEST})
        endif()
    endforeach()
endfunction()
# The targets are defined further down native/CMakeLists.txt (and sd-cli in sd.cpp's tree).
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _stepwise_add_resources)
